module github.com/thumela/thumela/services/paymentmethods

go 1.26.0
