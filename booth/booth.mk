# booth/booth.mk — the voter's booth: a static page (booth/web) that builds
# the ballot in the browser with the Go code compiled to WebAssembly
# (booth/wasm). Included by the top-level Makefile (ROOT, BUILD, GO come
# from there).
#
#   make booth         build/booth/: booth/web, booth.wasm and Go's
#                      wasm_exec.js; `fabvote booth digest --dir build/booth`
#                      prints the digest a manifest commits to
#   make booth-test    the booth's Go tests, then the real-browser tests:
#                      headless Chromium (Debian package chromium) runs the
#                      booth served by the ea serve handler against a real
#                      registrar and a fake box, by pointer on a phone's
#                      screen and by keyboard; screenshots of each step stay
#                      in build/booth-artifacts/

BOOTH_DIR := $(BUILD)/booth

.PHONY: booth booth-test

# -trimpath keeps the wasm, and so the digest, the same on every machine
# with the same Go release. make test runs parts that read build/booth
# side by side with parts that make it again, so each file is made beside
# it and moved into it by a rename, never removed first: a reader sees the old file or the new one,
# which are the same bytes when the sources have not changed. Files that are
# no longer part of the booth are removed.
BOOTH_FILES = $(notdir $(wildcard $(ROOT)/booth/web/*)) wasm_exec.js booth.wasm

booth:
	@set -e; tmp=$(BUILD)/.booth-new.$$$$; rm -rf $$tmp; mkdir -p $$tmp $(BOOTH_DIR); \
	GOOS=js GOARCH=wasm $(GO) build -trimpath -o $$tmp/booth.wasm ./booth/wasm; \
	cp $(ROOT)/booth/web/* "$$($(GO) env GOROOT)/lib/wasm/wasm_exec.js" $$tmp/; \
	for f in $$tmp/*; do mv -f "$$f" $(BOOTH_DIR)/; done; rmdir $$tmp; \
	for f in $(BOOTH_DIR)/*; do \
		case " $(BOOTH_FILES) " in *" $${f##*/} "*) ;; *) rm -f "$$f" ;; esac; done
	@echo "booth in $(BOOTH_DIR)"

booth-test: booth
	$(GO) vet -tags browser ./internal/boothserve/ ./internal/boothtest/ ./internal/devtools/ ./internal/a11y/
	$(GO) test -count=1 ./booth/ ./internal/boothserve/
	FABVOTE_BROWSER_TEST=1 FABVOTE_BOOTH_DIR=$(BOOTH_DIR) FABVOTE_BOOTH_ARTIFACTS=$(BUILD)/booth-artifacts \
		$(GO) test -count=1 -tags browser -run Browser -v ./internal/boothserve/

TEST_TARGETS += booth-test
