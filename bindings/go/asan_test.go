//go:build asan

package tfd

// underASan: built by `go test -asan` (the tests under --config=asan).
const underASan = true
