module github.com/ftkernel/ftkernel

go 1.26
