-- payment_method_usage now holds the first use of a method by a transfer only: Delete asks
-- whether any use exists, and a row per transfer was an insert per transfer that no one read.
-- A charge no longer writes a row either: the charge itself keeps its method (charges'
-- foreign key, and Delete's look for a charge). Rows written before stay; they mean the same.
COMMENT ON TABLE payment_method_usage IS
    'Why a method cannot be deleted: its first use by a transfer (from transfers'' status events). Charges block deletion themselves.';
