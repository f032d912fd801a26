import { Download } from "lucide-react";
import { useState } from "react";
import { Button, buttonClasses } from "@/components/ui/button";
import { Dialog, DialogContent } from "@/components/ui/dialog";
import { Input } from "@/components/ui/input";
import { periodError, statementUrl, thisMonth } from "../lib/statement";
import type { StatementFormat } from "../lib/statement";

/** 'Download statement' on /transactions: a period (this month by default), CSV or PDF. */
export function StatementDialog() {
  const [open, setOpen] = useState(false);
  const [period, setPeriod] = useState(() => thisMonth());
  const [format, setFormat] = useState<StatementFormat>("pdf");
  const error = periodError(period.from, period.to);

  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <Button variant="outline" onClick={() => setOpen(true)}>
        <Download aria-hidden="true" className="size-4" />
        Download statement
      </Button>
      {open && (
        <DialogContent title="Download statement" description="Your transfers in a period, made by Thumela (South African dates).">
          <div className="mt-4 grid gap-4 sm:grid-cols-2">
            <div>
              <label htmlFor="statement-from" className="text-sm font-medium">From</label>
              <Input id="statement-from" type="date" value={period.from} aria-invalid={!!error}
                aria-describedby={error ? "statement-error" : undefined}
                onChange={(e) => setPeriod((p) => ({ ...p, from: e.target.value }))} />
            </div>
            <div>
              <label htmlFor="statement-to" className="text-sm font-medium">To</label>
              <Input id="statement-to" type="date" value={period.to} aria-invalid={!!error}
                aria-describedby={error ? "statement-error" : undefined}
                onChange={(e) => setPeriod((p) => ({ ...p, to: e.target.value }))} />
            </div>
          </div>
          <fieldset className="mt-4">
            <legend className="text-sm font-medium">Format</legend>
            <div className="mt-2 flex gap-6">
              {(["pdf", "csv"] as const).map((f) => (
                <label key={f} className="flex items-center gap-2 text-sm">
                  <input type="radio" name="statement-format" value={f} checked={format === f} onChange={() => setFormat(f)} />
                  {f === "pdf" ? "PDF" : "CSV (spreadsheet)"}
                </label>
              ))}
            </div>
          </fieldset>
          {error && (
            <p id="statement-error" role="alert" className="mt-3 text-sm text-red-700 dark:text-red-400">{error}</p>
          )}
          <div className="mt-6 flex flex-col-reverse gap-3 sm:flex-row sm:justify-end">
            <Button variant="ghost" onClick={() => setOpen(false)}>Close</Button>
            {error ? (
              <Button disabled>Download</Button>
            ) : (
              <a href={statementUrl(period.from, period.to, format)} className={buttonClasses("primary")}>
                Download
              </a>
            )}
          </div>
        </DialogContent>
      )}
    </Dialog>
  );
}
