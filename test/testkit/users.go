package testkit

// The partner the tests add: its user name, its NIT and its password.
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

// URLPassword is the password the tests write into URL settings; watch
// fails a test whose service logs it.
const URLPassword = "url-pass-w0rd"
