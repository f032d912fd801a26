/** A field's own error, under it; point the input's aria-describedby at `id`. */
export function FieldError({ id, message }: { id: string; message?: string }) {
  if (!message) return null;
  return (
    <p id={id} className="mt-1.5 text-sm text-red-700 dark:text-red-300">
      {message}
    </p>
  );
}
