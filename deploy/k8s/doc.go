// Package k8s holds Kubernetes manifests for sharded ftcheck runs: Indexed
// Jobs whose pod K runs shard K (JOB_COMPLETION_INDEX) of a check or a
// campaign, the Jobs that merge them, and the volume they share
// (docs/scale-out.md). Its test decodes every manifest strictly into the
// Kubernetes API types and checks that the shard counts agree.
package k8s
