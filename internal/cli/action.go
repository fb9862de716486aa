package cli

import (
	"context"

	"github.com/loopbreaker/loopbreaker/internal/action"
)

// runAction runs the GitHub Action: inputs come from INPUT_* variables and
// the event payload, not from flags.
func runAction(args []string, env Env) (int, error) {
	fs := newFlagSet("action", "(inputs come from the INPUT_* environment)", env)
	if err := parseArgs(fs, args, 0); err != nil {
		return 0, err
	}
	return action.Run(context.Background(), action.Env{Getenv: env.Getenv, Stdout: env.Stdout, Now: env.Now, ExitForError: exitForError}), nil
}
