module github.com/thumela/thumela/services/fees

go 1.26.0
