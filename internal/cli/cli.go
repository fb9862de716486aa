package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/render"
	"github.com/loopbreaker/loopbreaker/policy"
)

// Version is the program version, set at build time with
// -ldflags "-X github.com/loopbreaker/loopbreaker/internal/cli.Version=v1.2.3".
var Version = "dev"

// Env is everything Main takes from the outside world.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv looks up an environment variable ("" when unset).
	Getenv func(string) string
	// Now is the clock, used only for defaults such as record's --at.
	Now func() time.Time
	// HTTPClient posts an alert's webhook (nil: Go's default client).
	HTTPClient *http.Client
	// Sleep waits between the webhook's tries (nil: a timer).
	Sleep func(ctx context.Context, d time.Duration) error
}

type command struct {
	name    string
	summary string
	run     func(args []string, env Env) (int, error)
}

func commands() []command {
	return []command{
		{"check", "decide for the newest iteration of a git loop", runCheck},
		{"replay", "show the whole fold: one decision per iteration", runReplay},
		{"record", "record one iteration in a state file and decide", runRecord},
		{"status", "show a state file's decision (applies a due cooldown)", runStatus},
		{"reset", "close the circuit on a person's word", runReset},
		{"hook", "the Claude Code (or Codex) Stop hook, and its install into .claude/settings.json", runHook},
		{"audit", "evaluate every open agent pull request of a GitHub repository", runAudit},
		{"discover", "find an organisation's open agent pull requests: the audit jobs' matrix", runDiscover},
		{"org-report", "fold the audit jobs' results into one organisation report", runOrgReport},
		{"policy", "validate and print the effective policy", runPolicy},
		{"action", "run as a GitHub Action step (the default when GITHUB_ACTIONS=true)", runAction},
		{"version", "print the version", runVersion},
	}
}

// Main runs the program and returns its exit code.
func Main(args []string, env Env) int {
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	if env.Now == nil {
		env.Now = time.Now
	}
	if env.Stdin == nil {
		env.Stdin = strings.NewReader("")
	}

	if len(args) == 0 && env.Getenv("GITHUB_ACTIONS") == "true" {
		args = []string{"action"}
	}
	if len(args) == 0 {
		usage(env.Stderr)
		return ExitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "-h", "-help", "--help", "help":
		if len(rest) > 0 {
			return Main([]string{rest[0], "-h"}, env)
		}
		usage(env.Stdout)
		return 0
	case "-version", "--version":
		name = "version"
	}
	for _, c := range commands() {
		if c.name != name {
			continue
		}
		code, err := c.run(rest, env)
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		if err != nil {
			var ue *usageError
			if errors.As(err, &ue) {
				fmt.Fprintf(env.Stderr, "loopbreaker: %s (run 'loopbreaker help %s')\n", oneLine(err.Error()), name)
			} else {
				fmt.Fprintf(env.Stderr, "loopbreaker: %s\n", oneLine(err.Error()))
			}
			return exitForError(err)
		}
		return code
	}
	fmt.Fprintf(env.Stderr, "loopbreaker: unknown command %q (run 'loopbreaker help')\n", render.Clean(name))
	return ExitUsage
}

// oneLine keeps an error message on a single, clean line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(render.Clean(strings.ReplaceAll(s, "\n", "; "))), " ")
}

func usage(w io.Writer) {
	fmt.Fprint(w, "loopbreaker: a circuit breaker for autonomous coding loops\n\nusage: loopbreaker COMMAND [flags]\n\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
exit codes: 0 the loop may continue, 1 OPEN (stop the loop), 2 bad usage or bad input,
  3 an internal or transient error (run again), 4 done (stop: the work is complete), 5 paused (a person must resume)
run 'loopbreaker help COMMAND' for a command's flags
`)
}

func newFlagSet(name, synopsis string, env Env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(env.Stdout, "usage: loopbreaker %s %s\n\n", name, synopsis)
		fs.SetOutput(env.Stdout)
		fs.PrintDefaults()
	}
	return fs
}

// parseArgs parses flags; -h prints the command's usage (fs.Usage) and
// returns flag.ErrHelp.
func parseArgs(fs *flag.FlagSet, args []string, maxPositional int) error {
	_, err := parsePositional(fs, args, maxPositional)
	return err
}

func runVersion(args []string, env Env) (int, error) {
	fs := newFlagSet("version", "", env)
	if err := parseArgs(fs, args, 0); err != nil {
		return 0, err
	}
	fmt.Fprintf(env.Stdout, "loopbreaker %s\n", Version)
	return 0, nil
}

func runPolicy(args []string, env Env) (int, error) {
	fs := newFlagSet("policy", "[NAME|FILE]", env)
	profile := fs.String("profile", "", "apply this profile of the policy")
	phase := fs.String("phase", "", "apply this phase of the policy")
	source := fs.Bool("source", false, "print the policy's commented TOML instead of the effective policy; with a profile, also where each of its values comes from")
	list := fs.Bool("list", false, "list the built-in policies")
	pos, err := parsePositional(fs, args, 1)
	if err != nil {
		return 0, err
	}
	if *list {
		for _, n := range policy.Names() {
			p, err := policy.Builtin(n)
			if err != nil {
				return 0, err
			}
			fmt.Fprintf(env.Stdout, "%-9s %s\n", n, p.Description)
		}
		return 0, nil
	}
	name := ""
	if len(pos) > 0 {
		name = pos[0]
	}
	name = policyFrom(name, name != "", env, "")
	if *source {
		return 0, writeSource(env, cmp.Or(name, "default"), profileFrom(*profile, env), *phase)
	}
	p, err := loadPolicy(name, *profile, env)
	if err != nil {
		return 0, err
	}
	if *phase != "" {
		if !p.HasPhase(*phase) {
			return 0, fmt.Errorf("policy %s has no phase %q (known: %s)", p.Name, *phase, strings.Join(p.PhaseNames(), ", "))
		}
		p = p.WithPhase(*phase)
	}
	return 0, p.Encode(env.Stdout)
}

// writeSource prints a policy's text (a built-in's commented TOML, or the
// file) and, for a profile, where each of the profile's values comes from
// and which one wins.
func writeSource(env Env, name, profile, phase string) error {
	var src []byte
	var err error
	source := name
	if policy.IsBuiltin(name) {
		src, err = policy.Source(name)
		source = "builtin:" + name
	} else {
		src, err = policy.ReadFile(name)
	}
	if err != nil {
		return err
	}
	if _, err := env.Stdout.Write(src); err != nil || profile == "" {
		return err
	}
	keys, err := policy.ProfileSources(src, source, profile, phase)
	if err != nil {
		return err
	}
	policy.WriteProfileSources(env.Stdout, profile, keys)
	return nil
}

// loadPolicy loads a policy and applies the profile (flag, else
// LOOPBREAKER_PROFILE, else PROJECT_TYPE).
func loadPolicy(name, profile string, env Env) (*policy.Policy, error) {
	p, err := policy.Load(cmp.Or(name, "default"))
	if err != nil {
		return nil, err
	}
	return p.WithProfile(profileFrom(profile, env))
}
