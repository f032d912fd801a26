module github.com/thumela/thumela/deploy/devstack

go 1.26.0
