package fabnet

// Proc is a node process of the organisation: a CA server, an orderer, a
// peer or a chaincode service.
type Proc struct {
	Name string
	Path string // absolute path of the binary
	Args []string
	Env  []string // the whole environment: nothing else is inherited
	Dir  string   // working directory
	// Ready is the host:port the process listens on once it is ready.
	Ready string
	// Image is the container image that runs the same node (without its
	// tag), and ImageCmd the binary on the image's PATH that Args follow;
	// empty, the node runs natively only.
	Image, ImageCmd string
	// Mounts are the files and directories outside Dir that the node reads
	// (its own keys and certificates, its organisation's TLS root): all a
	// container of it gets of the host, read-only, besides Dir.
	Mounts []string
}
