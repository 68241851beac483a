package submission

import (
	"errors"

	"github.com/emersion/go-sasl"
)

// loginServer is the server side of AUTH LOGIN (draft-murchison-sasl-login),
// which go-sasl lacks but Outlook, PHP mailers and Python's smtplib prefer:
// a username prompt, then a password prompt.
type loginServer struct {
	check    func(username, password string) error
	username string
	step     int
}

func newLoginServer(check func(username, password string) error) sasl.Server {
	return &loginServer{check: check}
}

func (s *loginServer) Next(response []byte) (challenge []byte, done bool, err error) {
	switch s.step {
	case 0:
		s.step++
		if len(response) > 0 { // the username as initial response
			s.username = string(response)
			s.step++
			return []byte("Password:"), false, nil
		}
		return []byte("Username:"), false, nil
	case 1:
		s.username = string(response)
		s.step++
		return []byte("Password:"), false, nil
	case 2:
		s.step++
		return nil, true, s.check(s.username, string(response))
	}
	return nil, false, errors.New("unexpected AUTH LOGIN response")
}
