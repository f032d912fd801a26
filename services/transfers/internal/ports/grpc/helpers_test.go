package grpcport_test

import "github.com/thumela/thumela/services/transfers/internal/app"

func errUnavailable() error { return app.ErrUnavailable }
