package aws

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"regexp"
	"strings"
)

// Principal is who is calling: the account, and the ARN AWS would report
// from GetCallerIdentity.
type Principal struct {
	Account     string `json:"account"`
	ARN         string `json:"arn"`
	AccessKeyID string `json:"accessKeyId"`
	// RoleARN is the IAM role behind an assumed-role session
	// (arn:aws:iam::<account>:role/<path/name>); empty for account keys.
	RoleARN string `json:"roleArn,omitempty"`
	// UserARN is the IAM user behind a user's access key; empty otherwise.
	UserARN string `json:"userArn,omitempty"`
	UserID  string `json:"userId"`
}

var accountKey = regexp.MustCompile(`^[0-9]{12}$`)

// resolvePrincipal maps the request's access key to its principal: a
// 12-digit key is that account's root; a key STS issued is its assumed role;
// a user's key (CreateAccessKey) is that user; any other key is the default
// account's root. Secrets are never checked.
func (c *Cloud) resolvePrincipal(call *Call, accessKeyID string) *APIError {
	if call.Service == "sts" && call.Action == "AssumeRoleWithWebIdentity" && accessKeyID == "" {
		// Unsigned: the account comes from the role ARN in the request.
		call.Principal = Principal{Account: accountFromARN(call.Params.Get("RoleArn"))}
		if call.Principal.Account == "" {
			call.Principal.Account = DefaultAccount
		}
		return nil
	}
	switch {
	case accountKey.MatchString(accessKeyID):
		call.Principal = rootPrincipal(accessKeyID, accessKeyID)
	case strings.HasPrefix(accessKeyID, issuedKeyPrefix):
		c.mu.Lock()
		p, ok := c.keys[accessKeyID]
		c.mu.Unlock()
		if !ok {
			return &APIError{Status: http.StatusForbidden, Code: "InvalidClientTokenId",
				Message: "The security token included in the request is invalid."}
		}
		call.Principal = p
	case strings.HasPrefix(accessKeyID, userKeyPrefix) && c.userKey(accessKeyID, call):
	default:
		call.Principal = rootPrincipal(DefaultAccount, accessKeyID)
	}
	return nil
}

// userKey sets the call's principal to the user owning the key, if any.
func (c *Cloud) userKey(accessKeyID string, call *Call) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.keys[accessKeyID]
	if ok {
		call.Principal = p
	}
	return ok
}

func rootPrincipal(account, accessKeyID string) Principal {
	return Principal{Account: account, ARN: "arn:aws:iam::" + account + ":root", AccessKeyID: accessKeyID, UserID: account}
}

// issuedKeyPrefix marks temporary keys, as AWS's ASIA prefix does.
const issuedKeyPrefix = "ASIA"

// IssuedCredentials are temporary credentials from STS.
type IssuedCredentials struct {
	AccessKeyID     string
	SecretAccessKey string
	SessionToken    string
}

// IssueRoleCredentials mints temporary keys for a session of roleARN. The
// caller holds c.mu (it is called from STS handlers).
func (c *Cloud) IssueRoleCredentials(roleARN, sessionName string) (IssuedCredentials, Principal) {
	account := accountFromARN(roleARN)
	roleName := roleARN[strings.LastIndex(roleARN, "/")+1:]
	creds := IssuedCredentials{
		AccessKeyID:     issuedKeyPrefix + strings.ToUpper(randomHex(8)),
		SecretAccessKey: randomHex(20),
		SessionToken:    randomHex(32),
	}
	p := Principal{
		Account:     account,
		ARN:         "arn:aws:sts::" + account + ":assumed-role/" + roleName + "/" + sessionName,
		AccessKeyID: creds.AccessKeyID,
		RoleARN:     roleARN,
		UserID:      "AROA" + strings.ToUpper(randomHex(8)) + ":" + sessionName,
	}
	c.keys[creds.AccessKeyID] = p
	return creds, p
}

// accountFromARN returns the account field of an ARN ("" when absent).
func accountFromARN(arn string) string {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) < 6 {
		return ""
	}
	return parts[4]
}

// PrincipalAllowed reports whether p matches an allowed-principal entry of an
// endpoint service: "*", an account root ARN (any principal of that account),
// or an IAM role ARN matching the role behind p's session (IAM paths are
// ignored, as AWS matches the role by name).
func PrincipalAllowed(p Principal, allowed string) bool {
	switch {
	case allowed == "*":
		return true
	case allowed == "arn:aws:iam::"+p.Account+":root":
		return true
	case p.RoleARN != "" && accountFromARN(allowed) == p.Account && strings.Contains(allowed, ":role/"):
		return lastSegment(allowed) == lastSegment(p.RoleARN)
	case p.RoleARN == "" && allowed == p.ARN:
		return true
	}
	return false
}

func lastSegment(arn string) string { return arn[strings.LastIndex(arn, "/")+1:] }

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on Linux
	}
	return hex.EncodeToString(b)
}

func newRequestID() string {
	h := randomHex(16)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
