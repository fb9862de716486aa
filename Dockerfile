# syntax=docker/dockerfile:1
# loopbreaker: a static binary in a minimal image, for linux/amd64 and linux/arm64.
#
# Build stage: the Go toolchain of the machine that builds (no emulation), cross-compiling for
# the image's platform: CGO off, -trimpath, a stripped static binary. golang:1.26 is the newest
# patch release of go.mod's Go line, with the standard library's security fixes (.ci/run checks
# that the line is go.mod's; the release pulls the tag afresh).
FROM --platform=$BUILDPLATFORM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG TARGETOS
ARG TARGETARCH
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH go build -trimpath \
    -ldflags "-s -w -X github.com/loopbreaker/loopbreaker/internal/cli.Version=${VERSION}" -o /out/loopbreaker .

# Final stage: distroless/static has CA certificates, no shell and no package manager. GitHub
# requires Docker actions to run as the image's default user (root): the mounted workspace
# belongs to the runner's user, and a non-root container could not write the record file there;
# loopbreaker gives what it writes the workspace's owner. action.yml cannot pass build
# arguments, so root is the default here; for any other use build with --build-arg
# RUN_AS=nonroot (uid 65532). The binary never needs privileges.
FROM gcr.io/distroless/static-debian12 AS final
ARG RUN_AS=root
# The source label links a package published to GHCR to its repository.
LABEL org.opencontainers.image.source="https://github.com/loopbreaker/loopbreaker" \
      org.opencontainers.image.description="loopbreaker: a circuit breaker for autonomous coding-agent loops"
COPY --from=build /out/loopbreaker /usr/local/bin/loopbreaker
USER ${RUN_AS}
ENTRYPOINT ["/usr/local/bin/loopbreaker"]
