-- The first-transfer waiver is decided by the transfers service alone, which holds the sender's
-- transfers: it quotes the wizard (TransfersService.QuoteFee) by the rule it charges by. fees
-- kept this copy of every transfer from their status events (a consumer, a write per transfer)
-- only to guess the waiver for the wizard, a moment behind. It is read and written no more.
DROP TABLE sender_transfers;
