module github.com/thumela/thumela/services/transfers

go 1.26.0
