package filecheck

// An encrypted PDF (contract §7, issue 36): one whose trailer, or whose
// xref stream's dictionary, has an /Encrypt entry — no other dictionary
// has that key. It opens with a password, or (with only an owner's
// password) keeps its strings and streams as ciphertext that neither the
// lender's tools nor these checks read: it is refused as Encrypted,
// whatever the encryption, as qpdf --is-encrypted tells it. The trailer
// comes at the end of most files, after object streams whose ciphertext
// does not inflate; a finding that says a structure could not be read
// (Finding.unreadable) is therefore held, the rest of the file is only
// searched for /Encrypt, and the held finding is the answer when none
// comes. The file is refused either way: only the reason waits.

// check reads a window; see scan for the PDF's rules.
func (p *pdfCheck) check(w *window) *Finding {
	if p.held != nil {
		return p.encryptIn(w)
	}
	fe := p.scan(w)
	if fe != nil && fe.unreadable {
		p.held = fe
		return p.encryptIn(w)
	}
	return fe
}

// onEncrypt refuses the PDF when name, at w.buf[e], is /Encrypt outside
// stream data, or inside it followed by "<<" or what may start a
// reference (pdfDictValue): a trailer written in stream data, which
// startxref points at (or an xref stream's dictionary written there, or a
// dictionary MuPDF's repair lexes there), makes every reader decrypt the
// file's strings and streams, which the check then reads as ciphertext
// (the twenty-first session's review: a javascript: link passed, RC4
// ciphertext to the URI scan, and pdf.js, MuPDF and qpdf decrypted it).
// The name alone in data (a content stream's "(/Encrypt) Tj") is no
// entry; compressed bytes spell "/Encrypt" and a value about once in
// 2^68 bytes.
func (p *pdfCheck) onEncrypt(w *window, e int, name []byte) *Finding {
	if string(name) != "Encrypt" || p.inData && !pdfDictValue(w, pdfNameEnd(w.buf, e)) {
		return nil
	}
	return pdfEncrypted()
}

// encryptIn searches w for the name /Encrypt anywhere, once a finding is
// held (where stream data lies is no longer followed then).
func (p *pdfCheck) encryptIn(w *window) *Finding {
	buf, lim := w.buf, w.index(w.limit)
	for i := w.index(w.from); i < lim; {
		e := nextIndex(buf, i, lim, "/")
		if e >= lim {
			return nil
		}
		if name, ok := pdfNameAt(buf, e, &p.name); ok && string(name) == "Encrypt" {
			return pdfEncrypted()
		}
		i = e + 1
	}
	return nil
}

func pdfEncrypted() *Finding {
	return refuse(Encrypted, "el PDF está cifrado (/Encrypt): se abre con contraseña o guarda su contenido cifrado, y el prestamista no puede leerlo; envíelo sin contraseña ni cifrado")
}
