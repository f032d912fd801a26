module github.com/thumela/thumela/services/identity

go 1.26.0
