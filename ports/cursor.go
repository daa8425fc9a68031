package ports

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/lender/disbursementd/domain"
)

// A cursor is opaque to partners: the unpadded base64url of
// "p1.<receipt time in Unix nanoseconds>.<id>", both canonical decimal
// integers, the time's UTC. Only a cursor this encoding makes decodes
// (tamper check: decoding and encoding again must give the same text), so
// a cursor that was edited is refused rather than read as something
// close. The "p1." prefix names the form. Cursors of the pre-release
// 1.1.0 builds that paged in id order (the base64url of an id alone) are
// refused with a message of their own, so a partner knows to start again
// (compatibility for those builds only; remove the message in 1.2.0).
const cursorForm = "p1."

func encodeCursor(p ListPosition) string {
	b := append([]byte(cursorForm), strconv.FormatInt(p.ReceivedAt.UnixNano(), 10)...)
	b = append(b, '.')
	b = strconv.AppendInt(b, p.ID, 10)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor reads a cursor; anything else is an invalid_request naming
// the cursor.
func decodeCursor(c string) (ListPosition, error) {
	bad := domain.InvalidParameter("cursor", "use el next_cursor de la página anterior tal como llegó")
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) > 64 {
		return ListPosition{}, bad
	}
	rest, ok := strings.CutPrefix(string(b), cursorForm)
	if !ok {
		if _, err := strconv.ParseUint(string(b), 10, 63); err == nil && b[0] != '0' {
			return ListPosition{}, domain.InvalidParameter("cursor",
				"es de una versión anterior, cuando las páginas iban en orden de id; vuelva a pedir la primera página sin cursor")
		}
		return ListPosition{}, bad
	}
	at, id, ok := strings.Cut(rest, ".")
	if !ok {
		return ListPosition{}, bad
	}
	ns, err1 := strconv.ParseInt(at, 10, 64)
	n, err2 := strconv.ParseInt(id, 10, 64)
	if err1 != nil || err2 != nil || n <= 0 {
		return ListPosition{}, bad
	}
	p := ListPosition{ReceivedAt: time.Unix(0, ns).UTC(), ID: n}
	if encodeCursor(p) != c {
		return ListPosition{}, bad
	}
	return p, nil
}
