import { CircleCheck, CircleX, Clock } from "lucide-react";
import { TransferStatus } from "@/gen/thumela/bff/v1/bff_pb";
import { cn } from "@/lib/cn";
import { STATUS_LABEL } from "../api/transfers";

interface TransferStatusIconProps {
  status: TransferStatus;
  /** Neutral colour: a completed transfer whose voucher was cancelled or expired (its money goes back). */
  muted?: boolean;
  className?: string;
}

/** Clock for pending and processing, check for completed, cross for failed. */
export function TransferStatusIcon({ status, muted = false, className }: TransferStatusIconProps) {
  const label = STATUS_LABEL[status] ?? STATUS_LABEL[TransferStatus.UNSPECIFIED];
  const common = cn("size-5", className);
  switch (status) {
    case TransferStatus.COMPLETED:
      return (
        <CircleCheck
          role="img"
          aria-label={label}
          className={cn(common, muted ? "text-slate-400 dark:text-slate-500" : "text-emerald-600 dark:text-emerald-400")}
        />
      );
    case TransferStatus.FAILED:
      return <CircleX role="img" aria-label={label} className={cn(common, "text-red-600 dark:text-red-400")} />;
    default:
      return <Clock role="img" aria-label={label} className={cn(common, "text-amber-600 dark:text-amber-400")} />;
  }
}
