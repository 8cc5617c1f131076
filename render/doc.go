// Package render draws a trace for people: an SVG timeline for the docs and
// Markdown tables for reviews. Both are deterministic (same trace, same
// bytes), so rendered files can be committed and kept current by a test.
//
// The timeline is a grid of panels read left to right, top to bottom. A
// panel is the state after one step: one row per replica with its log as
// cells (record id inside, filled with the colour of the record's epoch,
// offsets above), a blue bar at its HW, its epoch cache as a strip under
// the cells, its role and leader epoch on the left and LEO/HW on the right;
// the controller's leader, epoch and ISR at the bottom. Steps that change
// nothing drawn (a request sent, a request answered but not yet received)
// are folded into the next panel, whose caption lists them all, so a fetch
// round is one panel. A state that violates a checked invariant has a red
// frame and says which invariant, and why.
package render
