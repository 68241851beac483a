-- D63: a TOTP code is single-use. The last time step accepted for an
-- organization is kept here (NULL: none yet), so every node refuses a code
-- of that step or an earlier one.
ALTER TABLE organizations ADD COLUMN totp_last_step BIGINT;
