// This directory holds fabvote packages that import Fabric itself. They are
// compiled only inside the patched tree (fabric/build.sh copies them to
// fabvote/<name>); this go.mod keeps them out of the root module's ./... .
module github.com/fabvote/fabvote/fabric/intree

go 1.26
