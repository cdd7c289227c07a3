package cli

// DoubleDashLongFlags is doubleDashLongFlags for the external tests, whose
// test tool (internal/cli/internal/testtool) imports cli.
var DoubleDashLongFlags = doubleDashLongFlags
