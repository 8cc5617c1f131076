// Package verify holds what `hwepoch check` and `hwepoch verify` share:
// exploring a configuration of spec/manifest.json with the Go explorer and
// judging the verdict against the manifest and TLC's recorded run, and the
// stages of `hwepoch verify` — each producing rows of one verdict table.
package verify
