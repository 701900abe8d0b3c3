// natskeys: the NATS identities the nats plugin's credential tests need,
// made with the NATS project's own Go libraries (nkeys and jwt v2).
//
//	natskeys key KIND     a new NKey of KIND (user, account, operator):
//	                      its seed (SU..., SA..., SO...) on the first line,
//	                      its public key (U..., A..., O...) on the second
//	natskeys operator DIR an operator mode setup in DIR, for a server with
//	                      `operator`, `resolver: MEMORY` and
//	                      `resolver_preload`:
//	                        operator.jwt   the operator (self-signed), naming SYS
//	                                       its system account
//	                        account.pub    the account's public key (A...)
//	                        account.jwt    the account, signed by the operator,
//	                                       with JetStream and no limits
//	                        sys.pub        the system account's public key
//	                        sys.jwt        the system account, signed by the operator
//	                        user.creds     a user of the account (JWT and seed)
//	                        expired.creds  a user of the account whose JWT
//	                                       expired an hour ago
//	                        stranger.creds a user of another account of the
//	                                       operator, one the server is not given
//	                      the .creds files with mode 0600
//
// Build it outside modules, with the Debian packages golang-go,
// golang-github-nats-io-nkeys-dev and golang-github-nats-io-jwt-dev:
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go build -o natskeys main.go
//
// Exit 0, or 1 with the reason on stderr.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nkeys"
)

func main() {
	var err error
	switch {
	case len(os.Args) == 3 && os.Args[1] == "key":
		err = printKey(os.Args[2])
	case len(os.Args) == 3 && os.Args[1] == "operator":
		err = makeOperator(os.Args[2])
	default:
		err = fmt.Errorf("usage: natskeys key user|account|operator | natskeys operator DIR")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "natskeys:", err)
		os.Exit(1)
	}
}

func printKey(kind string) error {
	create := map[string]func() (nkeys.KeyPair, error){
		"user": nkeys.CreateUser, "account": nkeys.CreateAccount, "operator": nkeys.CreateOperator,
	}[kind]
	if create == nil {
		return fmt.Errorf("no such kind of key: %s", kind)
	}
	keys, public, err := pair(create)
	if err != nil {
		return err
	}
	seed, err := keys.Seed()
	if err != nil {
		return err
	}
	fmt.Printf("%s\n%s\n", seed, public)
	return nil
}

// A key pair of the kind `create` makes, and its public key.
func pair(create func() (nkeys.KeyPair, error)) (nkeys.KeyPair, string, error) {
	keys, err := create()
	if err != nil {
		return nil, "", err
	}
	public, err := keys.PublicKey()
	return keys, public, err
}

// The JWT of an account `name` signed by `operator`; JetStream without
// limits when `jetStream`.
func account(operator nkeys.KeyPair, public, name string, jetStream bool) (string, error) {
	claims := jwt.NewAccountClaims(public)
	claims.Name = name
	if jetStream {
		claims.Limits.JetStreamLimits = jwt.JetStreamLimits{
			MemoryStorage: jwt.NoLimit, DiskStorage: jwt.NoLimit, Streams: jwt.NoLimit, Consumer: jwt.NoLimit,
		}
	}
	return claims.Encode(operator)
}

// Writes the .creds file of a new user of `account` to `path`; its JWT
// expires at `expires` (Unix seconds; 0: never).
func writeUser(account nkeys.KeyPair, name string, expires int64, path string) error {
	user, public, err := pair(nkeys.CreateUser)
	if err != nil {
		return err
	}
	claims := jwt.NewUserClaims(public)
	claims.Name = name
	claims.Expires = expires
	token, err := claims.Encode(account)
	if err != nil {
		return err
	}
	seed, err := user.Seed()
	if err != nil {
		return err
	}
	creds, err := jwt.FormatUserConfig(token, seed)
	if err != nil {
		return err
	}
	return os.WriteFile(path, creds, 0o600)
}

func makeOperator(dir string) error {
	operator, operatorPublic, err := pair(nkeys.CreateOperator)
	if err != nil {
		return err
	}
	accountKeys, accountPublic, err := pair(nkeys.CreateAccount)
	if err != nil {
		return err
	}
	_, sysPublic, err := pair(nkeys.CreateAccount)
	if err != nil {
		return err
	}
	strangerKeys, strangerPublic, err := pair(nkeys.CreateAccount)
	if err != nil {
		return err
	}
	operatorClaims := jwt.NewOperatorClaims(operatorPublic)
	operatorClaims.Name = "pushhost-test"
	operatorClaims.SystemAccount = sysPublic
	operatorJWT, err := operatorClaims.Encode(operator)
	if err != nil {
		return err
	}
	accountJWT, err := account(operator, accountPublic, "PUSHES", true)
	if err != nil {
		return err
	}
	sysJWT, err := account(operator, sysPublic, "SYS", false)
	if err != nil {
		return err
	}
	files := map[string]string{
		"operator.jwt": operatorJWT, "account.pub": accountPublic, "account.jwt": accountJWT,
		"sys.pub": sysPublic, "sys.jwt": sysJWT,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text+"\n"), 0o644); err != nil {
			return err
		}
	}
	// The stranger's account is signed, but never given to the server.
	if _, err := account(operator, strangerPublic, "STRANGER", true); err != nil {
		return err
	}
	if err := writeUser(accountKeys, "pushhost", 0, filepath.Join(dir, "user.creds")); err != nil {
		return err
	}
	if err := writeUser(strangerKeys, "stranger", 0, filepath.Join(dir, "stranger.creds")); err != nil {
		return err
	}
	return writeUser(accountKeys, "expired", time.Now().Add(-time.Hour).Unix(), filepath.Join(dir, "expired.creds"))
}
