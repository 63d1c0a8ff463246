# syntax=docker/dockerfile:1
# The one image both operators run from: `hcplink operator` (the management
# operator, installed by `hcplink install`) and `hcplink control-plane-operator`
# (started by the management operator in each control-plane namespace).
#
#   docker build -t hcplink:$(git describe --tags --always) --build-arg VERSION=$(git describe --tags --always) .

ARG GO_VERSION=1.26.8

# Build on the builder's own platform and cross-compile: a static binary
# (no cgo) runs on any base image.
FROM --platform=$BUILDPLATFORM golang:${GO_VERSION} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY api/ api/
COPY cmd/ cmd/
COPY config/ config/
COPY internal/ internal/
# BuildKit sets TARGETOS and TARGETARCH from --platform.
ARG TARGETOS TARGETARCH VERSION=v0.1.0-dev
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH:-amd64} \
    go build -trimpath -ldflags "-s -w -X github.com/hcplink/hcplink/internal/version.Version=${VERSION}" \
      -o /out/hcplink ./cmd/hcplink

# No shell, no package manager: CA certificates, tzdata and a non-root user.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/hcplink /usr/local/bin/hcplink
# The distroless "nonroot" user; the Deployments also say runAsNonRoot.
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/hcplink"]
CMD ["--help"]
