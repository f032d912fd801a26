module github.com/thumela/thumela/services/profiles

go 1.26.0
