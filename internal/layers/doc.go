// Package layers holds no code: its test keeps the module's layers apart.
// The CLI's libraries (diagnose, demo, bench, infra) import no controller
// package, so that what they share with the operators — Kubernetes names,
// cloud names and tags, permission tables, intervals — lives in api/v1beta1,
// internal/cloud/<cloud> and the other shared packages, where a reader
// finds it once (cluster-api's clusterctl imports no controller either).
package layers
