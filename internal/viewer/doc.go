// Package viewer writes a trace as one self-contained HTML page that a
// person steps through: per-replica timeline lanes, a step slider and
// keyboard navigation (←/→, Home/End), each replica's log as cells
// coloured by epoch with its HW, LEO, checkpoint and epoch cache, what the
// step changed, the action with its parameters, the spec action and the
// Kafka code it follows (docs/mapping.md, docs/kafka-releases.md), the
// violated invariant at the step that breaks it, a refinement mismatch's
// two states side by side, and a lasso's cycle.
//
// The page needs no network: its CSS, script and data are inline. The
// data are the states the model computes when it replays the trace
// (refine.ReplayModel, as hwepoch replay does), in the spec's variable
// names and TLC's JSON spelling (trace.VarsToValues), each state as the
// variables that changed since the previous one; a test reads them back
// with the trace package's decoder and compares them with the replay.
//
// The page draws what the SVG timelines of package render draw, in the
// same palette and marks (render.EpochColor, render.Colors), so a reader
// of docs/ recognises it.
package viewer
