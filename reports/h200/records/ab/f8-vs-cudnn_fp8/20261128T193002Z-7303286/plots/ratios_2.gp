# ratios_2.gp: rendered by attnlab-report from the A/B record reports/h200/records/ab/f8-vs-cudnn_fp8/20261128T193002Z-7303286/run.json.
# Edits are overwritten on the next render; to restyle, copy this file. Render it
# from this directory with: gnuplot ratios_2.gp (reads ratios_2.dat, writes ratios_2.png)
set terminal pngcairo size 900,500 enhanced font 'DejaVu Sans,10'
set output 'ratios_2.png'
set title '4x16x4096x128:causal: per-pair ratio t_B / t_A in sampling order, block by block' noenhanced
set xlabel 'pair'
set ylabel 't_B / t_A' noenhanced
set key above noenhanced
set grid xtics ytics lc rgb '#dddddd'
plot 'ratios_2.dat' using 1:2 with points pt 7 ps 0.5 lc rgb '#1f77b4' title 'wall', \
     '' using 1:6 with steps lw 2 lc rgb '#2ca02c' title 'block median', \
     0.885367971 with lines lc rgb '#444444' title 'median', \
     0.875817646 with lines dt 2 lc rgb '#888888' title '95% interval', \
     0.891782083 with lines dt 2 lc rgb '#888888' notitle
