import type { FieldValues, Path, UseFormSetError } from "react-hook-form";
import type { FieldViolation } from "./errors";

/**
 * Marks on a react-hook-form form the fields a service refused (its BadRequest field
 * violations, lib/errors' fieldViolations), in the service's own words. `fields` maps the
 * service's field names (snake or camel case) to the form's; a violation of a field the form
 * does not have, or without words, is left to the caller's toast. With `focus` (the default) the
 * first field marked takes the focus, so the fix starts where the problem is.
 */
export function markViolations<T extends FieldValues>(
  violations: FieldViolation[],
  fields: Record<string, Path<T>>,
  setError: UseFormSetError<T>,
  { focus = true }: { focus?: boolean } = {},
): void {
  let first = focus;
  for (const violation of violations) {
    const field = fields[violation.field];
    if (!field || !violation.description) continue;
    setError(field, { type: "server", message: violation.description }, { shouldFocus: first });
    first = false;
  }
}
