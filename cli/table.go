package cli

import (
	"bufio"
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// printTable prints a table for people in the style of inspect's: no
// borders, a header of capitals, two spaces between columns, numbers right
// aligned (right[col]), no trailing spaces. The rows are the caller's; use
// it for tables whose rows are few (sessions, tools), not events.
func printTable(out io.Writer, header []string, right []bool, rows [][]string) error {
	aligns := make([]tw.Align, len(header))
	for col := range header {
		aligns[col] = tw.AlignLeft
		if col < len(right) && right[col] {
			aligns[col] = tw.AlignRight
		}
	}
	trimmed := &trimTrailingSpace{w: bufio.NewWriter(out)}
	table := tablewriter.NewTable(trimmed,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenColumns: tw.Off, BetweenRows: tw.Off},
				Lines:      tw.Lines{ShowHeaderLine: tw.Off},
			},
		})),
		tablewriter.WithPadding(tw.Padding{Right: "  ", Overwrite: true}),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: aligns}),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithTrimSpace(tw.Off),
	)
	table.Header(header)
	if err := table.Bulk(rows); err != nil {
		return err
	}
	if err := table.Render(); err != nil {
		return err
	}
	return trimmed.flush()
}
