package server

import (
	"fmt"
	"log/slog"

	"github.com/carteiro/carteiro/internal/app"
	"github.com/carteiro/carteiro/internal/libcrypto"
)

// openLibcrypto decides who makes RSA DKIM signatures (CARTEIRO_DKIM_LIBCRYPTO):
// the system's libcrypto when it loads (auto) or always (on), else crypto/rsa.
// The answer is an interface that is nil, not a nil *Library, when Go signs.
func openLibcrypto(setting string, logger *slog.Logger) (app.RSASigners, error) {
	if setting == "off" {
		logger.Info("DKIM signatures from crypto/rsa (CARTEIRO_DKIM_LIBCRYPTO=off)")
		return nil, nil
	}
	lib, err := libcrypto.Open()
	if err != nil {
		if setting == "on" {
			return nil, fmt.Errorf("CARTEIRO_DKIM_LIBCRYPTO=on: %w", err)
		}
		logger.Info("DKIM signatures from crypto/rsa", "reason", err.Error())
		return nil, nil
	}
	logger.Info("DKIM signatures from the system's libcrypto", "version", fmt.Sprintf("%#x", lib.Version))
	return lib, nil
}
