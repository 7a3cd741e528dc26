// Package layers holds the test that keeps karpgen's packages in their
// rooms. Each room may use the rooms below it and its own, never one
// above, so that a reader who follows a command goes down through the
// rooms and never back up. From the bottom:
//
//  1. facts and shapes: the schema, the profile's Go types, the table of
//     per-minor facts, findings, and the small helpers every room uses
//     (internal/util: escaping, bounded YAML, the objects of a YAML
//     stream, the safe folder, the collector's policy, the progress a
//     progress line reads, unified diffs), IAM evaluation, positions of a
//     profile's fields;
//  2. the model: one environment resolved, with every name and ARN, its
//     instance types and IAM policies;
//  3. loading and generating: the profiles evaluated (load), the bundle
//     made (generators), guardrails read;
//  4. the rule catalog (lint);
//  5. checking one environment (envcheck: its model, guardrails and
//     rule catalog), importing, writing out/, comparing two renders
//     (fleetdiff), the doctor's checks;
//  6. printing (text, markdown and JSON of every finding and report);
//  7. the upgrade planner, which writes documents with the printer;
//  8. the actions: what each command does (the pipeline that runs the
//     rooms below over a fleet, the diff's base, workloads, import's
//     loop, the capture the plans read);
//  9. commands and tools; the command line imports only the actions,
//     the printers, the findings and its own helpers.
//
// Imports going down is not all a reader needs: a function value or an
// interface can still carry a call back up. A second test builds the
// module's call graph and holds that no two packages call each other
// round, so that a command's walk enters each package once.
package layers
