-- Each bank's cash-send fee schedule: a fixed fee in cents plus a percentage of the amount in
-- basis points (30 = 0.3 %). Seeded with the values of DECISIONS.md.
CREATE TABLE bank_fees (
    bank               text    PRIMARY KEY,
    display_name       text    NOT NULL,
    base_fee_cents     bigint  NOT NULL CHECK (base_fee_cents >= 0),
    percentage_fee_bps integer NOT NULL CHECK (percentage_fee_bps BETWEEN 0 AND 10000)
);

INSERT INTO bank_fees (bank, display_name, base_fee_cents, percentage_fee_bps) VALUES
    ('standard_bank', 'Standard Bank', 1095, 30),
    ('absa',          'ABSA',           850, 30),
    ('fnb',           'FNB',           1095, 30),
    ('nedbank',       'Nedbank',        850, 30),
    ('capitec',       'Capitec',       1000, 30);
