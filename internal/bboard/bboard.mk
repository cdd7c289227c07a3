# internal/bboard/bboard.mk — the public bulletin board (a static site built
# from an election record). Included by the top-level Makefile (ROOT, BUILD,
# GO come from there).
#
#   make bboard-test    the package's tests, then the real-browser tests:
#                       headless Chromium (Debian package chromium) opens the
#                       generated site from disk, runs receipt searches and
#                       drives the search page by keyboard, and checks the
#                       main pages in Chromium's mobile emulation of a 390 px
#                       phone (DevTools protocol); screenshots and
#                       the site stay in build/bboard-artifacts/ (in make test)

.PHONY: bboard-test

bboard-test:
	$(GO) vet -tags browser ./internal/bboard/
	$(GO) test -count=1 ./internal/bboard/
	FABVOTE_BROWSER_TEST=1 FABVOTE_BBOARD_ARTIFACTS=$(BUILD)/bboard-artifacts \
		$(GO) test -count=1 -tags browser -run Browser -v ./internal/bboard/

TEST_TARGETS += bboard-test
