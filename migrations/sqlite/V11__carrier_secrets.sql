-- A carrier's secret config values (fields of kind password: API keys, passwords), sealed with
-- the vault's key as one JSON object; `config` holds "********" in their place.
ALTER TABLE carriers ADD COLUMN secrets TEXT;
