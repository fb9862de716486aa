package action

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/loopbreaker/loopbreaker/policy"
)

// Inputs are the action's inputs (action.yml), validated.
type Inputs struct {
	Mode        string   // check | gate | audit
	Policy      string   // built-in name or a path in the repository (read from the base branch)
	Profile     string   // policy profile
	Phase       string   // phase for iterations that name none
	Reports     []string // test report globs
	AgentLog    string   // agent output log
	Base        string   // base revision; empty: the PR's base, else the default branch
	OnOpen      []string // fail, label, comment, none
	OnHalfOpen  []string // label, comment, none
	Labels      bool     // manage loopbreaker:* labels at all
	Status      string   // status | check-run | none
	Token       string
	DryRun      bool
	Disabled    bool
	OnAPIError  string // fail | continue
	RecordPath  string // where this run's cumulative record is written
	Artifact    string // artifact name of the record
	UseArtifact bool   // read the previous run's artifact
	// Audit holds the scheduled audit's inputs; nil unless Mode is
	// "audit".
	Audit *AuditInputs
	// OpenAction overrides the policy's on_open (abort, pause, alert,
	// escalate); empty keeps the policy's.
	OpenAction policy.OnOpen
	// DisabledBy says what turned the breaker off ("" when nothing did).
	DisabledBy string
	// Trusted narrows who may control the breaker to these logins and
	// "org/team" teams (empty: anyone with write access).
	Trusted []string
	// AgentLogins are accounts never trusted, beside the known coding
	// agents (control.KnownAgents).
	AgentLogins []string
	// Bundle is the agent's git bundle (a path in the workspace) that the
	// judge applies and pushes before it decides; empty: none.
	Bundle string
	// Branch is the loop's branch when the run is dispatched on the
	// default branch (whose workflow file the agent cannot change); empty:
	// the run's own branch or the pull request's head.
	Branch string
	// PushToken pushes the agent's commits (empty: Token). A push made
	// with the workflow's token starts no workflow run.
	PushToken string
	// DigestKey authenticates the sticky comment's digest (a secret the
	// agent's job never sees); empty: the digest is never preferred over
	// the artifacts and cannot loosen a decision.
	DigestKey string
	// IgnoredEnv names the environment aliases the job sets, which the
	// Action does not read.
	IgnoredEnv []string
}

// envAliases are the variables the command line reads for settings its
// flags do not give. Any earlier step of a job can write them to
// $GITHUB_ENV, so the Action reads its inputs only: an agent running
// before the breaker must not switch it off or loosen its policy.
var envAliases = []string{policy.EnvDisabled, policy.EnvConfig, policy.EnvProjectType, policy.EnvProfile}

// readInputs reads the inputs; getenv is consulted only to say which
// environment aliases are set and ignored (IgnoredEnv).
func readInputs(get, getenv func(string) string) (*Inputs, error) {
	in := &Inputs{
		Mode:       orDefault(get("mode"), "check"),
		Policy:     orDefault(get("policy"), "default"),
		Profile:    get("profile"),
		Phase:      get("phase"),
		AgentLog:   get("agent-log"),
		Base:       get("base"),
		Status:     orDefault(get("status"), "status"),
		Token:      get("token"),
		OnAPIError: orDefault(get("on-api-error"), "continue"),
		RecordPath: orDefault(get("record-path"), ".loopbreaker/record.json"),
		Artifact:   orDefault(get("artifact-name"), "loopbreaker-record"),
	}
	in.Reports = list(get("reports"))
	in.Trusted, in.AgentLogins = list(get("trusted")), list(get("agent-logins"))
	in.DigestKey = get("digest-key")
	in.Bundle = strings.TrimSpace(get("bundle"))
	in.Branch, in.PushToken = strings.TrimSpace(get("branch")), get("push-token")
	if in.Branch != "" && plumbing.NewBranchReferenceName(in.Branch).Validate() != nil || strings.HasPrefix(in.Branch, "refs/") {
		return nil, fmt.Errorf("input branch: %q is not a branch name (give the branch alone, such as agent/my-task)", in.Branch)
	}
	for _, k := range envAliases {
		if strings.TrimSpace(getenv(k)) != "" {
			in.IgnoredEnv = append(in.IgnoredEnv, k)
		}
	}
	var err error
	if a := strings.TrimSpace(get("open-action")); a != "" {
		if in.OpenAction, err = policy.ParseOnOpen(a); err != nil {
			return nil, fmt.Errorf("input open-action: %q is not allowed: want one of %s", a, policy.OnOpenNames())
		}
	}
	bools := []struct {
		name string
		def  bool
		dst  *bool
	}{{"dry-run", false, &in.DryRun}, {"disabled", false, &in.Disabled}, {"labels", true, &in.Labels}, {"use-artifact", true, &in.UseArtifact}}
	for _, b := range bools {
		if *b.dst, err = parseBool(b.name, get(b.name), b.def); err != nil {
			return nil, err
		}
	}
	if in.Disabled {
		in.DisabledBy = "the disabled input is true"
	}
	// An audit walks every open pull request: by default it labels and
	// neither comments nor fails.
	onOpen, onHalfOpen := "fail,label,comment", "label,comment"
	if in.Mode == "audit" {
		onOpen, onHalfOpen = "label", "label"
	}
	if in.OnOpen, err = actions("on-open", orDefault(get("on-open"), onOpen), "fail", "label", "comment", "none"); err != nil {
		return nil, err
	}
	if in.OnHalfOpen, err = actions("on-half-open", orDefault(get("on-half-open"), onHalfOpen), "label", "comment", "none"); err != nil {
		return nil, err
	}
	if err := oneOf("mode", in.Mode, "check", "gate", "audit"); err != nil {
		return nil, err
	}
	if in.Mode == "audit" {
		if in.Audit, err = readAuditInputs(get); err != nil {
			return nil, err
		}
	}
	if err := oneOf("status", in.Status, "status", "check-run", "none"); err != nil {
		return nil, err
	}
	if err := oneOf("on-api-error", in.OnAPIError, "fail", "continue"); err != nil {
		return nil, err
	}
	return in, nil
}

func orDefault(v, def string) string {
	if strings.TrimSpace(v) == "" {
		return def
	}
	return strings.TrimSpace(v)
}

// list splits an input on newlines and commas.
func list(v string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == '\n' || r == ',' }) {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func parseBool(name, v string, def bool) (bool, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("input %s: %q is not true or false", name, v)
	}
	return b, nil
}

func oneOf(name, v string, allowed ...string) error {
	if slices.Contains(allowed, v) {
		return nil
	}
	return fmt.Errorf("input %s: %q is not allowed: want one of %s", name, v, strings.Join(allowed, ", "))
}

func actions(name, v string, allowed ...string) ([]string, error) {
	out := list(v)
	for _, a := range out {
		if err := oneOf(name, a, allowed...); err != nil {
			return nil, err
		}
	}
	if slices.Contains(out, "none") {
		if len(out) > 1 {
			return nil, fmt.Errorf("input %s: \"none\" cannot be combined with other actions", name)
		}
		return nil, nil
	}
	return out, nil
}
