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
# with the same Go release.
booth:
	rm -rf $(BOOTH_DIR)
	mkdir -p $(BOOTH_DIR)
	cp $(ROOT)/booth/web/* $(BOOTH_DIR)/
	cp "$$($(GO) env GOROOT)/lib/wasm/wasm_exec.js" $(BOOTH_DIR)/
	GOOS=js GOARCH=wasm $(GO) build -trimpath -o $(BOOTH_DIR)/booth.wasm ./booth/wasm
	@echo "booth in $(BOOTH_DIR)"

booth-test: booth
	$(GO) vet -tags browser ./internal/boothserve/ ./internal/boothtest/ ./internal/devtools/ ./internal/a11y/
	$(GO) test -count=1 ./booth/ ./internal/boothserve/
	FABVOTE_BROWSER_TEST=1 FABVOTE_BOOTH_DIR=$(BOOTH_DIR) FABVOTE_BOOTH_ARTIFACTS=$(BUILD)/booth-artifacts \
		$(GO) test -count=1 -tags browser -run Browser -v ./internal/boothserve/

TEST_TARGETS += booth-test
