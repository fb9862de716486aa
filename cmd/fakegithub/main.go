package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/github/fakegithub"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fakegithub:", err)
		os.Exit(1)
	}
}

// run parses args, serves until a signal or POST /_fake/shutdown, and
// writes the dump file when asked for one.
func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("fakegithub", flag.ContinueOnError)
	var usage bytes.Buffer
	fs.SetOutput(&usage)
	addr := fs.String("addr", "127.0.0.1:0", "`host:port` to listen on")
	statePath := fs.String("state", "", "JSON seed `file` to load before serving")
	dumpPath := fs.String("dump", "", "`file` to write the final state and call counts to")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("parse flags: %w\n%s", err, usage.String())
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("parse flags: unexpected argument %q", fs.Arg(0))
	}

	s := fakegithub.NewHandler()
	if *statePath != "" {
		if err := loadSeed(s, *statePath); err != nil {
			return err
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *addr, err)
	}
	s.URL = "http://" + ln.Addr().String()

	shutdown := make(chan struct{})
	var once sync.Once
	srv := &http.Server{
		Handler:           control(s, *dumpPath, func() { once.Do(func() { close(shutdown) }) }),
		ReadHeaderTimeout: 10 * time.Second,
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()

	if _, err := fmt.Fprintf(stdout, "listening on %s\n", s.URL); err != nil {
		_ = srv.Close()
		return fmt.Errorf("write stdout: %w", err)
	}

	var runErr error
	select {
	case <-ctx.Done():
	case <-shutdown:
	case err := <-serveErr:
		runErr = fmt.Errorf("serve on %s: %w", s.URL, err)
	}
	s.Close() // end pending Delay faults so Shutdown does not wait for them
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && runErr == nil {
		runErr = fmt.Errorf("shut down %s: %w", s.URL, err)
	}
	if *dumpPath != "" {
		if err := writeDump(s, *dumpPath); err != nil {
			return errors.Join(runErr, err)
		}
	}
	return runErr
}

func loadSeed(s *fakegithub.Server, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open state %s: %w", path, err)
	}
	defer f.Close()
	if err := s.LoadSeed(f); err != nil {
		return fmt.Errorf("load state %s: %w", path, err)
	}
	return nil
}

// control wraps the fake's handler with the program's own endpoints:
// POST /_fake/dump also writes the dump file, POST /_fake/shutdown stops.
func control(s *fakegithub.Server, dumpPath string, stop func()) http.Handler {
	h := s.Handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/_fake/shutdown":
			w.WriteHeader(http.StatusNoContent)
			stop()
			return
		case r.Method == http.MethodPost && r.URL.Path == "/_fake/dump" && dumpPath != "":
			if err := writeDump(s, dumpPath); err != nil {
				w.Header().Set("Content-Type", "application/json; charset=utf-8")
				w.WriteHeader(http.StatusInternalServerError)
				fmt.Fprintf(w, "{\"message\":%q}\n", err.Error())
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// writeDump writes the dump atomically: a temporary file beside the
// target, renamed over it.
func writeDump(s *fakegithub.Server, path string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".fakegithub-dump-*")
	if err != nil {
		return fmt.Errorf("write dump %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := s.Dump(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("write dump %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write dump %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write dump %s: %w", path, err)
	}
	return nil
}
