// Command fakegithub serves the fake GitHub REST API of package fakegithub
// on a loopback address for end-to-end tests.
//
// Usage:
//
//	fakegithub [-addr 127.0.0.1:0] [-state seed.json] [-dump out.json]
//
// Its first line on stdout is "listening on http://ADDR". -state loads a
// JSON seed (fakegithub.State: repos, pulls, runs, artifacts, permissions,
// files, ...). On SIGTERM, SIGINT or POST /_fake/shutdown it stops and
// writes the final state and call counts to the -dump file; POST
// /_fake/dump writes that file at once and also returns the dump. The
// package's other control endpoints drive a test between runs: GET
// /_fake/event builds an event's payload, POST /_fake/push moves a pull
// request's head, POST /_fake/upload stores a run's artifact, POST
// /_fake/seed adds state.
package main
