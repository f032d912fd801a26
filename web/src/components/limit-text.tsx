import { Fragment } from "react";
import { splitLimitText, useLimitPolicy } from "@/lib/limit-policy";

/**
 * A text whose "{limit:…}" tokens show the limits the server enforces (GetLimitPolicy). While
 * they load each figure is a short placeholder (the text stays readable and says it is
 * loading); if they cannot be read it says "the current limit" rather than guess a figure.
 */
export function LimitText({ text }: { text: string }) {
  const { figures, isPending, isError } = useLimitPolicy();
  const parts = splitLimitText(text);
  if (parts.every((part) => "text" in part)) return <>{text}</>;
  return (
    <span aria-busy={isPending || undefined}>
      {parts.map((part, index) => {
        if ("text" in part) return <Fragment key={index}>{part.text}</Fragment>;
        const value = figures[part.figure];
        if (value !== undefined) {
          return (
            <span key={index} data-limit={part.figure} className="whitespace-nowrap">
              {value}
            </span>
          );
        }
        if (isError) return <Fragment key={index}>the current limit</Fragment>;
        return (
          <span key={index} data-limit-loading="" className="inline-block h-3 w-16 animate-pulse rounded bg-slate-200 align-middle dark:bg-slate-700">
            <span className="sr-only">loading</span>
          </span>
        );
      })}
    </span>
  );
}
