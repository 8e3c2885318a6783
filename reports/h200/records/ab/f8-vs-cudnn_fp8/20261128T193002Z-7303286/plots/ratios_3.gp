# ratios_3.gp: rendered by attnlab-report from the A/B record reports/h200/records/ab/f8-vs-cudnn_fp8/20261128T193002Z-7303286/run.json.
# Edits are overwritten on the next render; to restyle, copy this file. Render it
# from this directory with: gnuplot ratios_3.gp (reads ratios_3.dat, writes ratios_3.png)
set terminal pngcairo size 900,500 enhanced font 'DejaVu Sans,10'
set output 'ratios_3.png'
set title '16x16x1024x64: per-pair ratio t_B / t_A in sampling order, block by block' noenhanced
set xlabel 'pair'
set ylabel 't_B / t_A' noenhanced
set key above noenhanced
set grid xtics ytics lc rgb '#dddddd'
plot 'ratios_3.dat' using 1:2 with points pt 7 ps 0.5 lc rgb '#1f77b4' title 'wall', \
     '' using 1:6 with steps lw 2 lc rgb '#2ca02c' title 'block median', \
     1.13022015 with lines lc rgb '#444444' title 'median', \
     1.12583076 with lines dt 2 lc rgb '#888888' title '95% interval', \
     1.1353422 with lines dt 2 lc rgb '#888888' notitle
