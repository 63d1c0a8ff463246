// Package validationtest holds the CRD validation suite of hcplink.io/v1beta1:
// objects sent to a real kube-apiserver (envtest) with the generated CRDs
// installed, asserting what the API server accepts and, for what it
// refuses, that the message names the offending field.
//
// It is a package of its own so that the pure unit tests of api/v1beta1 run
// without an API server.
package validationtest
