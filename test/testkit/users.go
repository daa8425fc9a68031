package testkit

const (
	Partner  = "acme"
	Nit      = "900123456-8"
	Password = "correct horse battery staple"
)

// The second partner of the /v1 tests.
const (
	OtherPartner  = "globex"
	OtherPassword = "globex: a different password"
)

// URLPassword is the password written into URL settings by the tests
// below; TestMain fails the run if any log line holds it.
const URLPassword = "url-pass-w0rd"
