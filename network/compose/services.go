package compose

import (
	"maps"
	"strconv"
	"strings"

	"github.com/fabvote/fabvote/fabric/switches"
	"github.com/fabvote/fabvote/network/fabnet"
)

// Where every node container finds its files (the images' layout).
const (
	nodeDir  = "/etc/fabvote/node"
	mspDir   = "/etc/fabvote/msp"
	tlsDir   = "/etc/fabvote/tls"
	dataDir  = "/var/hyperledger/data"
	toolsDir = "/etc/fabvote"
)

// passThrough is an environment entry without a value: compose takes it
// from the caller's environment when set there.
var passThrough *string

func value(v string) *string { return &v }

// peerSwitches are the fork's switches that each organisation sets for its
// own peer (switches.ReadByPeer), in the table's order.
func peerSwitches() []string {
	var envs []string
	for _, s := range switches.Table {
		if s.ReadBy == switches.ReadByPeer {
			envs = append(envs, s.Env)
		}
	}
	return envs
}

// nodeEnv is every peer's and orderer's environment: the log level and the
// fork's peer switches and Go runtime knobs, passed through from the caller.
func nodeEnv() map[string]*string {
	env := map[string]*string{"FABRIC_LOGGING_SPEC": value("${FABVOTE_LOG_SPEC:-info}")}
	for _, k := range append(peerSwitches(), "GOMAXPROCS", "GOGC", "GOMEMLIMIT") {
		env[k] = passThrough
	}
	return env
}

// The operations endpoints (/metrics, /healthz, /logspec) speak TLS only,
// with the node's own TLS pair; /metrics and /logspec want a client
// certificate from the node's organisation's TLS CA, /healthz none.
func peerEnv() map[string]*string {
	env := nodeEnv()
	maps.Copy(env, map[string]*string{
		"CORE_OPERATIONS_TLS_ENABLED": value("true"), "CORE_OPERATIONS_TLS_CERT_FILE": value(tlsDir + "/server.crt"),
		"CORE_OPERATIONS_TLS_KEY_FILE": value(tlsDir + "/server.key"), "CORE_OPERATIONS_TLS_CLIENTAUTHREQUIRED": value("false"),
		"CORE_OPERATIONS_TLS_CLIENTROOTCAS_FILES": value(tlsDir + "/ca.crt"),
	})
	return env
}

func ordererEnv() map[string]*string {
	env := nodeEnv()
	maps.Copy(env, map[string]*string{
		"ORDERER_OPERATIONS_TLS_ENABLED": value("true"), "ORDERER_OPERATIONS_TLS_CERTIFICATE": value(tlsDir + "/server.crt"),
		"ORDERER_OPERATIONS_TLS_PRIVATEKEY": value(tlsDir + "/server.key"), "ORDERER_OPERATIONS_TLS_CLIENTAUTHREQUIRED": value("false"),
		"ORDERER_OPERATIONS_TLS_CLIENTROOTCAS": value("[" + tlsDir + "/ca.crt]"),
	})
	return env
}

// chaincodeEnv: the service's gRPC server with mutual TLS, its operations
// endpoint (plain HTTP) when it has one, and only the election authority's
// MSP, authority, may open an election (chaincode/ballot/config.go).
func chaincodeEnv(s fabnet.Service, authority string) map[string]*string {
	env := map[string]*string{
		"CHAINCODE_SERVER_ADDRESS": value("0.0.0.0:" + strconv.Itoa(s.Port)), "CHAINCODE_TLS_CERT_FILE": value(tlsDir + "/server.crt"),
		"CHAINCODE_TLS_KEY_FILE": value(tlsDir + "/server.key"), "CHAINCODE_TLS_CLIENT_CA_FILE": value(tlsDir + "/ca.crt"),
		"FABVOTE_AUTHORITY_MSPS": value("${FABVOTE_AUTHORITY_MSPS:-" + authority + "}"),
		"FABVOTE_PROOF_BATCH":    passThrough, "FABVOTE_PROOF_BATCH_WAIT": passThrough, "FABVOTE_MAX_CLOCK_SKEW": passThrough, "GOMAXPROCS": passThrough,
	}
	if s.OpsPort != 0 {
		env["FABVOTE_OPS_ADDR"] = value("0.0.0.0:" + strconv.Itoa(s.OpsPort))
	}
	return env
}

func orderer(oo fabnet.OrdererOrg, o, host fabnet.Orderer) service {
	name := oo.HostOf(o)
	crypto := dir("crypto/ordererOrganizations", oo.Domain, "orderers", name)
	return service{name: name, Image: "fabvote/orderer:" + tagVar, Hostname: name, Environment: ordererEnv(),
		Volumes: []string{dir("nodes", name) + ":" + nodeDir + ":ro", crypto + "/msp:" + mspDir + ":ro", crypto + "/tls:" + tlsDir + ":ro",
			o.Name + "-data:" + dataDir},
		Ports:       []quoted{publish(host.Port, o.Port), publish(host.AdminPort, o.AdminPort), publish(host.OpsPort, o.OpsPort)},
		Healthcheck: health("--tls", tlsDir+"/ca.crt", strconv.Itoa(o.OpsPort), "/healthz"), Restart: "unless-stopped"}
}

func peer(o, host *fabnet.PeerOrg) service {
	name := o.Host
	crypto := dir("crypto/peerOrganizations", o.Domain, "peers", name)
	return service{name: name, Image: "fabvote/peer:" + tagVar, Hostname: name, Environment: peerEnv(),
		Volumes: []string{dir("nodes", name) + ":" + nodeDir + ":ro", crypto + "/msp:" + mspDir + ":ro", crypto + "/tls:" + tlsDir + ":ro",
			o.Peer.Name + "-" + o.Name + "-data:" + dataDir},
		Ports:       []quoted{publish(host.Peer.Port, o.Peer.Port), publish(host.Peer.OpsPort, o.Peer.OpsPort)},
		Healthcheck: health("--tls", tlsDir+"/ca.crt", strconv.Itoa(o.Peer.OpsPort), "/healthz"), Restart: "unless-stopped"}
}

// chaincodeService runs the org's service of chaincode cc, in which the
// MSP authority opens elections; its CHAINCODE_ID (the package id of the
// org's package) comes from the env file artifacts.sh writes. Only its
// operations port is published.
func chaincodeService(o *fabnet.PeerOrg, cc fabnet.Chaincode, s, host fabnet.Service, authority string) service {
	name := s.Host
	svc := service{name: name, Image: "fabvote/" + cc.Name + "-cc:" + tagVar, Hostname: name,
		EnvFile: dir("ccaas", cc.Name+"."+o.Name+".env"), Environment: chaincodeEnv(s, authority),
		Volumes:     []string{dir("crypto/peerOrganizations", o.Domain, "peers", name, "tls") + ":" + tlsDir + ":ro"},
		Healthcheck: health(strconv.Itoa(s.Port)), Restart: "unless-stopped"}
	if s.OpsPort != 0 {
		svc.Ports = []quoted{publish(host.OpsPort, s.OpsPort)}
	}
	return svc
}

// tools gets what its commands use and nothing more: network.container.json,
// the TLS CA certificates (not the CA keys beside them), the users'
// identities (the admin and clients of each org, the orderer admin's TLS
// pair, for channel configuration updates), and the first peer's core.yaml
// for the peer CLI (it holds no secret). No node's key and no CA's key is
// mounted into it, nor the genesis block and the chaincode packages: the
// host joins the channel and deploys the chaincode (fabnet local-channel).
func tools(t *fabnet.Topology) service {
	ro := func(rel string) string { return dir(rel) + ":" + toolsDir + "/" + rel + ":ro" }
	first := t.Orgs[0].Host
	vols := []string{ro("network.container.json"), ro("nodes/" + first + "/core.yaml")}
	oo := t.OrdererOrg
	oc := "crypto/ordererOrganizations/" + oo.Domain
	vols = append(vols, ro(oc+"/tlsca/tlsca."+oo.Domain+"-cert.pem"), ro(oc+"/users/Admin@"+oo.Domain+"/tls"))
	for _, o := range t.Orgs {
		pc := "crypto/peerOrganizations/" + o.Domain
		vols = append(vols, ro(pc+"/tlsca/tlsca."+o.Domain+"-cert.pem"), ro(pc+"/users"))
	}
	return service{name: "tools", Image: "fabvote/tools:" + tagVar, Hostname: "tools.fabvote.local",
		Environment: map[string]*string{"FABVOTE_NETWORK": value(toolsDir + "/network.container.json")},
		Volumes:     append(vols, "tools-work:/home/fabvote/work"), WorkingDir: "/home/fabvote/work",
		Command: []string{"bash", "-c", "trap 'exit 0' TERM INT; sleep infinity & wait"}, Restart: "unless-stopped"}
}

// header heads the Docker network's compose file of topology t: what it
// runs, how to use it, the variables it reads and its host ports.
func header(t *fabnet.Topology) string {
	var msps []string
	for _, o := range t.Orgs {
		msps = append(msps, o.MSPID)
	}
	r := strings.NewReplacer("{orderers}", strconv.Itoa(len(t.OrdererOrg.Orderers)), "{ordererMSP}", t.OrdererOrg.MSPID,
		"{peerMSPs}", andList(msps), "{authority}", t.Orgs[0].MSPID,
		"{switches}", wrapComment("# switches ", strings.Join(peerSwitches(), ", ")+" and the chaincode's FABVOTE_PROOF_BATCH,"))
	return r.Replace(headerText)
}

// andList joins names as a sentence does: "a, b and c".
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// wrapComment writes text after first as comment lines of at most
// commentWidth characters, each further line starting "# ", breaking
// between words.
func wrapComment(first, text string) string {
	var b strings.Builder
	line := strings.TrimSuffix(first, " ")
	for _, w := range strings.Fields(text) {
		if len(line)+1+len(w) > commentWidth && line != "#" {
			b.WriteString(line + "\n")
			line = "#"
		}
		line += " " + w
	}
	b.WriteString(line)
	return b.String()
}

// commentWidth is the width of the header's generated lines.
const commentWidth = 80

// headerText is header with its topology's and the table's facts left as
// {names}.
const headerText = `# fabvote's Docker network for operators: {orderers} Raft orderers ({ordererMSP}), one
# peer for each of {peerMSPs}, the ballot chaincode service
# (CCAAS, mutual TLS) of each peer, and a tools container (fabvote, peer CLI,
# osnadmin). TLS everywhere; ledgers in named volumes; every published port on
# 127.0.0.1 only. Generated from the network's typed topology by
# ` + "`fabnet compose`" + ` (network/compose); docs/OPERATORS.md explains operation.
#
# Use the make targets (they generate the material this file mounts, build the
# images, create the channel and deploy the chaincode):
#   make docker-up      images (if missing) + material (once) + start + channel + chaincode
#   make docker-down    stop and remove the containers; volumes (ledgers) stay
#   make docker-clean   also remove the volumes and the generated material
#
# Variables: FABVOTE_DOCKER_DIR (generated material, default ../run/docker,
# relative to this file), FABVOTE_PORT_PREFIX (host ports <prefix>050...,
# default 17), FABVOTE_IMAGE_TAG (latest), FABVOTE_LOG_SPEC (info); the fork's
{switches}
# FABVOTE_PROOF_BATCH_WAIT, FABVOTE_MAX_CLOCK_SKEW pass through from the
# caller's environment when set (an entry whose value is null); FABVOTE_AUTHORITY_MSPS
# (the MSPs allowed to open elections) defaults to {authority}.
#
# Host ports (the native network's plan with base <prefix>050):
#   orderer0/1/2   gRPC 17050/17060/17070, admin (osnadmin, mTLS) +1, operations +2
#   peer0.ea/party1/party2  gRPC + gateway 17150/17160/17170, operations +2
#   ballot-cc of ea/party1/party2  operations 17250/17260/17270 (plain HTTP)
#   operations = https://127.0.0.1:PORT/metrics (Prometheus) and /healthz,
#   TLS with the node's TLS certificate (verify with the org's tlsca/ CA;
#   /metrics wants a client certificate of the org, docs/OPERATORS.md 5)

`
