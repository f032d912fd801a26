module github.com/thumela/thumela/bff

go 1.26.0

require (
	github.com/thumela/thumela/proto v0.0.0
	github.com/thumela/thumela/services/platform v0.0.0
)

require (
	connectrpc.com/connect v1.21.1 // indirect
	connectrpc.com/connect/v2 v2.0.2 // indirect
	connectrpc.com/otelconnect v0.12.0 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/go-logr/logr v1.4.4 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	go.opentelemetry.io/auto/sdk v1.2.1 // indirect
	go.opentelemetry.io/otel v1.47.0 // indirect
	go.opentelemetry.io/otel/log v1.47.0 // indirect
	go.opentelemetry.io/otel/metric v1.47.0 // indirect
	go.opentelemetry.io/otel/trace v1.47.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)

replace (
	github.com/thumela/thumela/proto => ../proto
	github.com/thumela/thumela/services/platform => ../services/platform
)
