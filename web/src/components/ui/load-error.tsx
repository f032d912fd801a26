import { Button } from "@/components/ui/button";
import { cn } from "@/lib/cn";

/**
 * A list that could not be loaded: what failed and a 'Try again' button (the payment-methods
 * page's pattern). Never an empty state: "nothing found" is only said when the server answered.
 */
export function LoadError({
  message,
  onRetry,
  retrying,
  className,
}: {
  message: string;
  onRetry: () => void;
  retrying?: boolean;
  className?: string;
}) {
  return (
    <div className={cn("flex flex-col items-center gap-3 p-10 text-center", className)}>
      <p className="font-medium">{message}</p>
      <Button variant="outline" busy={retrying} onClick={onRetry}>
        Try again
      </Button>
    </div>
  );
}
