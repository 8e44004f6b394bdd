module github.com/ftkernel/ftkernel

go 1.26

require (
	github.com/anishathalye/porcupine v1.3.1
	github.com/google/go-cmp v0.7.0
	pgregory.net/rapid v1.3.0
)
