package switches

// Table is every switch of the fork, in lever order. The order is the order
// of the variables in every configuration's environment.
var Table = []Switch{
	{
		Env: "FABVOTE_SHA256", Lever: "O-I",
		Values:  []Value{{"stdlib", "crypto/sha256", `SHA-256 implementation "stdlib"`}, {"simd", "minio/sha256-simd", `SHA-256 implementation "simd"`}},
		Default: "stdlib", Fork: "simd",
		Invalid: "ERROR log line, `stdlib`",
		Logged:  "INFO `fabvote: SHA-256 implementation \"…\"` from `bccsp_sw` when the first SW BCCSP is made",
		Package: "fabric/ext/sha256x", Patches: []string{"0002-sha256-simd"},
		Config: "o1", Summary: "SHA-256 simd",
		ReadBy: ReadByPeer,
	},
	{
		Env: "FABVOTE_ECDSA", Lever: "O-II",
		Values:  []Value{{"go", "crypto/ecdsa", `ECDSA P-256 implementation "go"`}, {"openssl", "libcrypto via dlopen", `ECDSA P-256 implementation "openssl"`}},
		Default: "go", Fork: "openssl",
		Invalid: "ERROR log line, `go`",
		Logged: "INFO `fabvote: ECDSA P-256 implementation \"openssl\", libcrypto.so.3 (OpenSSL 3.0.x …)`; " +
			"if OpenSSL cannot be loaded, one WARN line `FABVOTE_ECDSA=openssl but OpenSSL cannot be used, falling back to Go: …` and Go is used",
		Package: "fabric/ext/osslecdsa", Patches: []string{"0003-ecdsa-openssl"},
		Config: "o2", Summary: "OpenSSL ECDSA",
		ReadBy: ReadByPeer,
	},
	{
		Env: "FABVOTE_COMMIT_GATE", Lever: "O-III",
		Values: []Value{{"locked", "Fabric's RWMutex", `commit gate mode "locked"`}, {"lockless", "the gate of `txmgr/lockless`; goleveldb only: " +
			"with `ledger.state.stateDatabase: CouchDB` the peer refuses to start", `commit gate mode "lockless"`}},
		Default: "locked", Fork: "lockless",
		Invalid: "ERROR log line, `locked`",
		Logged:  "INFO `fabvote: commit gate mode \"…\"` from `lockbasedtxmgr` at peer start",
		Package: "txmgr/lockless",
		Patches: []string{"0004-commit-gate", "0005-peer-only-reads", "0006-endorser-stale-retry",
			"0007-commit-gate-metrics", "0008-commit-gate-state-safety", "0009-simulation-attempts"},
		Config: "o3", Summary: "lockless commit gate",
		ReadBy: ReadByPeer,
	},
	{
		Env: "FABVOTE_VALIDATION_PLUGIN", Lever: "O-IV",
		Values: []Value{{"off", "Fabric's default validation plugin; the ballot chaincode checks every proof at endorsement", ""},
			{"ballotvscc", "the ballot chaincode's definition names the plugin `ballotvscc`: every peer checks each ballot's proof at validation, endorsement only decodes it", ""}},
		Default: "off", Fork: "ballotvscc", OmitDefault: true,
		Invalid: "the ballot chaincode refuses to start",
		Logged:  "`ballot-cc: proof verification …` on the ballot chaincode's standard error at start",
		Package: "fabric/intree/ballotvscc", Patches: []string{"0020-ballot-validation-plugin"},
		Config: "o4", Summary: "proof checked by every peer at validation, cheap endorsement",
		ReadBy: ReadByChaincode,
	},
	{
		Env: "FABVOTE_SIG_MEMO", Lever: "O-V",
		Values:  []Value{{"off", "every verification computed", "verified-signature memo on: false"}, {"on", "a verification this process already found valid for the same key, digest and signature is a lookup", "verified-signature memo on: true"}},
		Default: "off", Fork: "on",
		Invalid: "ERROR log line, `off`",
		Logged:  "INFO `fabvote: verified-signature memo on: …` from `bccsp_sw` when the first SW BCCSP is made",
		Package: "fabric/ext/sigmemo", Patches: []string{"0022-verified-signature-memo"},
		Config: "o5", Summary: "verified-signature memo",
		ReadBy: ReadByPeer,
	},
	{
		Env: "FABVOTE_DECODE_MEMO", Lever: "O-VI",
		Values: []Value{{"off", "every stage decodes for itself", `decode memo "off"`}, {"on", "the stages of a commit share one decode of the same bytes", `decode memo "on"`},
			{"check", "shared like `on`, and every shared message compared with a fresh decode of its bytes, " +
				"every remembered definition with a fresh read; a difference panics", `decode memo "check"`}},
		Default: "off", Fork: "on",
		Invalid: "ERROR log line, `off`",
		Logged:  "INFO `fabvote: decode memo \"…\"` from `committer.txvalidator` when the first channel's validator is made",
		Package: "fabric/ext/decodememo", Patches: []string{"0024-decode-memo", "0025-definition-once-per-block"},
		Config: "o6", Summary: "each transaction decoded once for the whole commit",
		ReadBy: ReadByPeer, Check: "check",
	},
	{
		Env: "FABVOTE_LEVELDB", Lever: "O-VII",
		Values:  []Value{{"stock", "goleveldb's defaults", `LevelDB options "stock"`}, {"tuned", "bloom filter, 16 MiB memtable, 32 MiB block cache, no compression", `LevelDB options "tuned"`}},
		Default: "stock", Fork: "tuned",
		Invalid: "ERROR log line, `stock`",
		Logged:  "INFO `fabvote: LevelDB options \"…\"` from `leveldbhelper` when the first database opens",
		Package: "fabric/ext/leveldbopts", Patches: []string{"0023-leveldb-options"},
		Config: "o7", Summary: "tuned LevelDB options",
		ReadBy: ReadByPeer,
	},
}
