//go:build ignore

// Command assert checks the fake GitHub API's final state after the end-to-end run: the PR has
// the open label, exactly one sticky comment, and a failed "loopbreaker" status on its head.
// Usage: go run assert.go DUMP.json HEAD_SHA
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
)

var codeSpan = regexp.MustCompile("`[^`\n]*`")

type dump struct {
	Repos []struct {
		Owner, Name string
		Pulls       []struct {
			Number int      `json:"number"`
			Labels []string `json:"labels"`
		} `json:"pulls"`
		Comments []struct {
			Number int    `json:"number"`
			Body   string `json:"body"`
			Login  string `json:"login"`
		} `json:"comments"`
		Statuses []struct {
			SHA     string `json:"sha"`
			State   string `json:"state"`
			Context string `json:"context"`
		} `json:"statuses"`
	} `json:"repos"`
}

func main() {
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "assert:", err)
		os.Exit(1)
	}
	fmt.Println("assert: labels, sticky comment and status are as expected")
}

func run(path, head string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var d dump
	if err := json.Unmarshal(data, &d); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	for _, r := range d.Repos {
		if r.Owner != "octo" || r.Name != "loop" {
			continue
		}
		labelled := false
		for _, p := range r.Pulls {
			if p.Number == 7 {
				for _, l := range p.Labels {
					labelled = labelled || l == "loopbreaker:open"
				}
			}
		}
		if !labelled {
			return fmt.Errorf("PR 7 lacks the loopbreaker:open label")
		}
		sticky := 0
		for _, c := range r.Comments {
			if c.Number == 7 && strings.Contains(c.Body, "<!-- loopbreaker:sticky -->") {
				sticky++
				// Inside code spans GitHub renders neither HTML nor mentions.
				outside := codeSpan.ReplaceAllString(c.Body, "")
				if strings.Contains(outside, "<img") || strings.Contains(outside, "@octo/admins") {
					return fmt.Errorf("the sticky comment holds agent text unescaped")
				}
			}
		}
		if sticky != 1 {
			return fmt.Errorf("PR 7 has %d sticky comments, want 1", sticky)
		}
		for _, s := range r.Statuses {
			if s.SHA == head && s.Context == "loopbreaker" && s.State == "failure" {
				return nil
			}
		}
		return fmt.Errorf("no failed loopbreaker status on %s", head)
	}
	return fmt.Errorf("the dump has no repository octo/loop")
}
