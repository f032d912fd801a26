# syntax=docker/dockerfile:1.7
# The cash-out gateway's image: the ATM networks' gateway (ISO 8583 over TCP, docs/cashout.md).
# Build from the repository's root (the build context), e.g.
#   docker build -f deploy/docker/cashout.Dockerfile --build-arg VERSION=$(git describe --tags --always) \
#     -t ghcr.io/thumela/cashout:$(git describe --tags --always) .
# BuildKit reads the ignore list from cashout.Dockerfile.dockerignore, next to this file.
# deploy/kubernetes/validate's test checks this file against go.work, the manifests and the
# source tree, and builds the binary exactly as the RUN line below does.

FROM golang:1.26 AS build
WORKDIR /src
ENV GOFLAGS=-mod=readonly GOTOOLCHAIN=local
# go.work lists every module of the repository and Go refuses a workspace with a module
# missing, so every module's go.mod and go.sum come in; sources only for what cashout imports.
COPY go.work go.work.sum ./
COPY bff/go.mod bff/go.sum bff/
COPY deploy/devstack/go.mod deploy/devstack/go.sum deploy/devstack/
COPY deploy/kubernetes/validate/go.mod deploy/kubernetes/validate/go.sum deploy/kubernetes/validate/
COPY proto/go.mod proto/go.sum proto/
COPY services/cashout/go.mod services/cashout/go.sum services/cashout/
COPY services/fees/go.mod services/fees/go.sum services/fees/
COPY services/identity/go.mod services/identity/go.sum services/identity/
COPY services/notifications/go.mod services/notifications/go.sum services/notifications/
COPY services/paymentmethods/go.mod services/paymentmethods/go.sum services/paymentmethods/
COPY services/platform/go.mod services/platform/go.sum services/platform/
COPY services/profiles/go.mod services/profiles/go.sum services/profiles/
COPY services/transfers/go.mod services/transfers/go.sum services/transfers/
COPY proto/ proto/
COPY services/platform/ services/platform/
COPY services/cashout/ services/cashout/
ARG VERSION=dev
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X main.version=${VERSION}" -o /out/cashout ./services/cashout/cmd/cashout

# No shell, no package manager: a static binary on distroless, as user 65532 (nonroot).
FROM gcr.io/distroless/static-debian12:nonroot
ARG VERSION=dev
LABEL org.opencontainers.image.title="thumela-cashout" \
      org.opencontainers.image.source="https://github.com/thumela/thumela" \
      org.opencontainers.image.version="${VERSION}"
COPY --from=build /out/cashout /usr/local/bin/cashout
# The code's defaults (127.0.0.1:9090, 127.0.0.1:8583) are unreachable from outside a container.
# 9090: gRPC health and reflection only (the probes; the gateway has no gRPC API); 8583: ISO 8583
# over TCP, where the ATM switches connect (2-byte length-prefixed frames, docs/cashout.md).
# The binary needs no database and no NATS.
ENV CASHOUT_GRPC_ADDR=:9090 \
    CASHOUT_ISO_ADDR=:8583
USER 65532:65532
EXPOSE 9090 8583
ENTRYPOINT ["/usr/local/bin/cashout"]
