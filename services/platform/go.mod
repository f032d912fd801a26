module github.com/thumela/thumela/services/platform

go 1.26.0
