// Package boothserve serves the voter's booth (booth/web, built by `make
// booth`) under /booth/ with the headers it needs: a Content-Security-Policy
// that lets the page load nothing but its own files and talk to nothing but
// its own origin (the registrar) and the ballot box, correct MIME types
// (application/wasm for booth.wasm), no sniffing and no referrer. It serves
// the files it read and digested at start, and only if their digest is the
// manifest's boothDigest, so that voters run the booth the election
// committed to. /booth/config.json, the deployment's settings, is made from
// Config and is outside the digest.
package boothserve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/fabvote/fabvote/booth"
)

// Prefix is the path the booth is served under.
const Prefix = "/booth/"

// ConfigFile is the generated settings file's name under Prefix.
const ConfigFile = "config.json"

// Config is /booth/config.json: the election, and where the page sends
// ballots and links to.
type Config struct {
	ElectionID string `json:"electionID"`
	BoxURL     string `json:"boxURL"`   // a ballot box (fabvote box serve), https://HOST[:PORT]
	BoardURL   string `json:"boardURL"` // the bulletin board (fabvote record site), http(s)://…
}

// mimeTypes are the types of the booth's files, by extension; any other
// file is served as application/octet-stream.
var mimeTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".json": "application/json",
	".wasm": "application/wasm",
	".png":  "image/png",
	".svg":  "image/svg+xml",
}

// Handler serves one booth.
type Handler struct {
	files  booth.Files
	config []byte
	csp    string
}

// New reads the booth in dir and checks its digest against want (the
// manifest's boothDigest).
func New(dir, want string, cfg Config) (*Handler, error) {
	if want == "" {
		return nil, fmt.Errorf("--booth %s: the manifest has no boothDigest, so no booth is committed to; create the election with --booth-digest (fabvote booth digest --dir %s)", dir, dir)
	}
	files, err := booth.ReadFiles(dir)
	if err != nil {
		return nil, fmt.Errorf("--booth: %w", err)
	}
	if got := files.Digest(); got != want {
		return nil, fmt.Errorf("--booth %s: its files have digest %s, the manifest's boothDigest is %s: serve the booth the election committed to", dir, got, want)
	}
	boxOrigin, err := origin("--box", cfg.BoxURL, "https")
	if err != nil {
		return nil, err
	}
	if _, err := origin("--board", cfg.BoardURL, "https", "http"); err != nil {
		return nil, err
	}
	conf, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	return &Handler{files: files, config: conf, csp: CSP(boxOrigin)}, nil
}

// origin checks that raw is an absolute URL of one of schemes and returns
// its origin (scheme://host[:port]).
func origin(flag, raw string, schemes ...string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil {
		return "", fmt.Errorf("%s %q: want an absolute URL such as %s://HOST:PORT", flag, raw, schemes[0])
	}
	for _, s := range schemes {
		if u.Scheme == s {
			return u.Scheme + "://" + u.Host, nil
		}
	}
	return "", fmt.Errorf("%s %q: the scheme must be %s", flag, raw, strings.Join(schemes, " or "))
}

// CSP is the booth's Content-Security-Policy: scripts, styles, images and
// the worker from its own origin only ('wasm-unsafe-eval' lets the worker
// compile booth.wasm, and nothing else), requests to its own origin and the
// box only, no frame, no form submission, no <base>.
func CSP(boxOrigin string) string {
	return "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; connect-src 'self' " + boxOrigin +
		"; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}

// ServeHTTP serves GET and HEAD under Prefix; /booth redirects to /booth/.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", h.csp)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-cache")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed: use GET", http.StatusMethodNotAllowed)
		return
	}
	if r.URL.Path == strings.TrimSuffix(Prefix, "/") {
		http.Redirect(w, r, Prefix, http.StatusMovedPermanently)
		return
	}
	name, ok := strings.CutPrefix(r.URL.Path, Prefix)
	if !ok {
		http.NotFound(w, r)
		return
	}
	if name == "" {
		name = "index.html"
	}
	body, found := h.files[name]
	if name == ConfigFile {
		body, found = h.config, true
	}
	if !found {
		http.NotFound(w, r)
		return
	}
	ct, known := mimeTypes[path.Ext(name)]
	if !known {
		ct = "application/octet-stream"
	}
	hd.Set("Content-Type", ct)
	w.Write(body)
}

// With serves booth under Prefix (and Prefix without its slash, which
// redirects) and everything else with other: how `ea serve --booth` puts
// the booth beside the registration endpoint, on one origin.
func With(other, booth http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(Prefix, booth)
	mux.Handle(strings.TrimSuffix(Prefix, "/"), booth)
	mux.Handle("/", other)
	return mux
}
