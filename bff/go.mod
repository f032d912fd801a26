module github.com/thumela/thumela/bff

go 1.26.0
