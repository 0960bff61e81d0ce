-- Certification reports are bounded: each exchange keeps its request's and its answer's body to their first 2 KiB,
-- with the whole body's size (`bodyBytes`), as the service now cuts them when a run makes them. Runs stored before
-- were kept whole, and a wallet padding its answers made reports of megabytes: their bodies are cut the same way
-- (to 2048 characters when those are 2 KiB or less, as JSON's are; else to 512, which never pass 2 KiB) and sized.
CREATE FUNCTION pg_temp.kept_body(body text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN body IS NULL OR octet_length(body) <= 2048 THEN body
    WHEN octet_length(left(body, 2048)) <= 2048 THEN left(body, 2048)
    ELSE left(body, 512)
  END
$$;

UPDATE wallet_certification_cases c
SET exchanges = (
  SELECT coalesce(jsonb_agg(
    e || jsonb_build_object(
      'request', (e -> 'request') || jsonb_build_object(
        'body', pg_temp.kept_body(e -> 'request' ->> 'body'),
        'bodyBytes', octet_length(e -> 'request' ->> 'body')
      ),
      'response', CASE WHEN jsonb_typeof(e -> 'response') = 'object' THEN (e -> 'response') || jsonb_build_object(
        'body', pg_temp.kept_body(e -> 'response' ->> 'body'),
        'bodyBytes', octet_length(e -> 'response' ->> 'body')
      ) ELSE e -> 'response' END
    ) ORDER BY n
  ), '[]'::jsonb)
  FROM jsonb_array_elements(c.exchanges) WITH ORDINALITY AS each (e, n)
)
WHERE EXISTS (SELECT 1 FROM jsonb_array_elements(c.exchanges) AS each (e) WHERE NOT (e -> 'request' ? 'bodyBytes'));
