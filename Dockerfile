# loopbreaker: a static binary in a minimal image, for linux/amd64 and linux/arm64.
#
# Build stage: the Go toolchain of the machine that builds (no emulation), cross-compiling for
# the image's platform: CGO off, -trimpath, a stripped static binary. golang:1.26 is go.mod's Go
# line (.ci/run checks it). Both base images are named by digest (a multi-platform index), so that
# a moved tag cannot change what is built; Dependabot proposes new digests, and the release
# resolves golang:1.26 afresh (the newest patch release, with the standard library's security
# fixes) and pins that digest in the tagged commit. There is no "# syntax=" line: it would pull a
# frontend image by a tag that can move; the builder's own frontend reads this file.
FROM --platform=$BUILDPLATFORM golang:1.26@sha256:3aff6657219a4d9c14e27fb1d8976c49c29fddb70ba835014f477e1c70636647 AS build
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
FROM gcr.io/distroless/static-debian12@sha256:4b2a093ef4649bccd586625090a3c668b254cfe180dee54f4c94f3e9bd7e381e AS final
ARG RUN_AS=root
# The source label links a package published to GHCR to its repository.
LABEL org.opencontainers.image.source="https://github.com/loopbreaker/loopbreaker" \
      org.opencontainers.image.description="loopbreaker: a circuit breaker for autonomous coding-agent loops"
COPY --from=build /out/loopbreaker /usr/local/bin/loopbreaker
USER ${RUN_AS}
ENTRYPOINT ["/usr/local/bin/loopbreaker"]
